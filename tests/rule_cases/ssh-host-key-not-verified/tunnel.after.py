import paramiko


def open_tunnel(host):
    client = paramiko.SSHClient()
    client.load_system_host_keys()
    client.connect(host)
    return client
