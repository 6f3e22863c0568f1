from flask import Blueprint, request, send_file

bp = Blueprint("export", __name__)


@bp.get("/export")
def export():
    return send_file(request.args.get("path"), as_attachment=True)
