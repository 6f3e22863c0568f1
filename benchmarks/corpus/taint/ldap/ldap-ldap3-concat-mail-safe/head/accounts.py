from django.http import JsonResponse
from ldap3 import Connection, Server
from ldap3.utils.conv import escape_filter_chars

SERVER = Server("ldaps://ldap.example.com")


def find_account(request):
    mail = request.POST["mail"]
    conn = Connection(SERVER, auto_bind=True)
    flt = "(&(objectClass=person)(mail=" + escape_filter_chars(mail) + "))"
    conn.search("dc=example,dc=com", flt, attributes=["cn"])
    return JsonResponse({"matches": len(conn.entries)})
