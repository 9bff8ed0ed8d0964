from django.urls import path

from bench.views import baseline_features, ceiling
from config.urls import urlpatterns as product_urlpatterns

urlpatterns = [
    path("bench/baseline/features/", baseline_features),
    path("bench/ceiling/", ceiling),
    *product_urlpatterns,
]
