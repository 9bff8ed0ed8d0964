from django.urls import path

from bench.views import baseline_check, baseline_features, baseline_install, ceiling
from config.urls import urlpatterns as product_urlpatterns
from releases.surfaces import PLAIN, on

# The baselines are outside the catalog's rules on purpose: they measure what the rules cost.
urlpatterns = [
    *on(
        PLAIN,
        [
            path("bench/baseline/features/", baseline_features),
            path("bench/ceiling/", ceiling),
            path("bench/baseline/check/", baseline_check),
            path("bench/baseline/install/", baseline_install),
        ],
    ),
    *product_urlpatterns,
]
