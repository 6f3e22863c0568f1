import paramiko


def restart(host, user):
    client = paramiko.SSHClient()
    client.load_system_host_keys()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(host, username=user)
    client.exec_command("sudo systemctl restart shop")
    client.close()
