from django.urls import path
from rest_framework.routers import DefaultRouter

from releases.api import lifecycle, views

app_name = "releases"

router = DefaultRouter()
# ?format= is enough: without suffix routes, /api/releases/1.8.json/ names nothing (a 404).
router.include_format_suffixes = False
router.APIRootView = views.RootView
router.register("releases", views.ReleaseViewSet, basename="release")
router.register("features", views.FeatureViewSet, basename="feature")
router.register("links", views.LinkViewSet, basename="link")
router.register("areas", views.AreaViewSet, basename="area")
router.register("tracks", views.TrackViewSet, basename="track")
router.register("state", views.StateViewSet, basename="state")
router.register("upgrade", views.UpgradeViewSet, basename="upgrade")
router.register("stats/releases", views.ReleaseStatsViewSet, basename="stats-release")
router.register("stats/graduation", views.GraduationViewSet, basename="stats-graduation")

urlpatterns = [
    path("compare/", views.CompareView.as_view(), name="compare"),
    path("changes/", views.ChangeLogView.as_view(), name="changes"),
    path("check/", lifecycle.CheckView.as_view(), name="check"),
    path("install/", lifecycle.InstallView.as_view(), name="install"),
    path("lifecycle/pytorch.json", lifecycle.LifecycleView.as_view(), name="lifecycle"),
    path("schema/", views.SchemaView.as_view(), name="schema"),
    path("docs/", views.DocsView.as_view(url_name="releases:schema"), name="docs"),
    *router.urls,
]
