import paramiko


def fetch_dump(host, known_hosts):
    client = paramiko.SSHClient()
    client.load_host_keys(known_hosts)
    client.connect(host, username="backup")
    sftp = client.open_sftp()
    sftp.get("/var/backups/db.dump", "db.dump")
    return known_hosts
