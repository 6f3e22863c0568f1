from django.urls import path

from . import views

urlpatterns = [path("reports/<path:name>", views.report)]
