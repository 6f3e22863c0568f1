import shlex
import subprocess

from aiohttp import web


async def show_branch(request: web.Request) -> web.Response:
    branch = request.match_info["branch"]
    cmd = "git -C /srv/repo log --oneline -n 20 --end-of-options {}".format(branch)
    proc = subprocess.Popen(cmd, shell=True, stdout=subprocess.PIPE)
    out, _ = proc.communicate()
    return web.Response(text=out.decode())
