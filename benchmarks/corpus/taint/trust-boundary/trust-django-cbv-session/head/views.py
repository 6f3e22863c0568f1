from django.http import HttpResponseForbidden, JsonResponse
from django.views import View

OPEN_TEAMS = ("docs", "community")


class SwitchTeam(View):
    def get(self, request):
        team = self.request.GET.get("team", "docs")
        self.request.session["team"] = team
        return JsonResponse({"team": team})
