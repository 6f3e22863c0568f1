import os


def convert_to_webp(name):
    status = os.system("cwebp -q 80 /srv/media/incoming/" + name + " -o /srv/media/out.webp")
    return status == 0
