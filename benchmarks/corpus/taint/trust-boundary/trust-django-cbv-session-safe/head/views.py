from django.http import HttpResponseForbidden, JsonResponse
from django.views import View

OPEN_TEAMS = ("docs", "community")


class SwitchTeam(View):
    def get(self, request):
        team = self.request.GET.get("team", "docs")
        if team not in OPEN_TEAMS:
            return HttpResponseForbidden()
        self.request.session["team"] = team
        return JsonResponse({"team": team})
