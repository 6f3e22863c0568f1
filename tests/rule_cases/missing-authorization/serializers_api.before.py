from rest_framework import viewsets
from rest_framework.permissions import IsAuthenticated

from .models import Payment


class PaymentViewSet(viewsets.ModelViewSet):
    queryset = Payment.objects.all()
    # ruleid: missing-authorization
    permission_classes = [IsAuthenticated]
