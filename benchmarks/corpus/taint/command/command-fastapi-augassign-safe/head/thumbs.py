import subprocess

from fastapi import FastAPI

app = FastAPI()


@app.get("/thumb")
def thumb(image: str, width: str = "128"):
    size = str(int(width))
    cmd = "convert /srv/img/original.png -resize "
    cmd += size
    cmd += " /srv/img/thumb.png"
    subprocess.call(cmd, shell=True)
    return {"done": True, "image": image}
