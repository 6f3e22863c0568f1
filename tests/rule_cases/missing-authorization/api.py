from rest_framework import viewsets
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny, IsAuthenticated

from .models import Report
from .serializers import ReportSerializer


class ReportViewSet(viewsets.ModelViewSet):
    queryset = Report.objects.all()
    serializer_class = ReportSerializer
    # ruleid: missing-authorization
    permission_classes = [AllowAny]


class OwnReportViewSet(viewsets.ModelViewSet):
    serializer_class = ReportSerializer
    # ok: missing-authorization
    permission_classes = [IsAuthenticated]


@api_view(["POST"])
# ruleid: missing-authorization
@permission_classes([AllowAny])
def export_reports(request):
    return Report.objects.export()
