import paramiko


def open_tunnel(host):
    client = paramiko.SSHClient()
    client.load_system_host_keys()
    # ruleid: ssh-host-key-not-verified
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    client.connect(host)
    return client
