import pickle
import subprocess


def load(request):
    # ruleid: unsafe-deserialization, unicode-identifier-evasion
    return 𝗽𝗶𝗰𝗸𝗹𝗲.𝗹𝗼𝗮𝗱𝘀(request.data)


def run(cmd):
    # ruleid: unicode-identifier-evasion, command-injection
    return subprocess.ｃａｌｌ(cmd, shell=True)

