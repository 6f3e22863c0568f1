import subprocess

import paramiko


def connect(host):
    client = paramiko.SSHClient()
    # ruleid: ssh-host-key-not-verified
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    # ruleid: ssh-host-key-not-verified
    client.set_missing_host_key_policy(paramiko.WarningPolicy)
    client.connect(host, username="deploy")
    return client


def rsync(src, host):
    # ruleid: ssh-host-key-not-verified
    subprocess.run(["rsync", "-e", "ssh -o StrictHostKeyChecking=no", src, f"{host}:/srv"], check=True)
