import paramiko


def fetch_dump(host, known_hosts):
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.WarningPolicy())
    client.connect(host, username="backup")
    sftp = client.open_sftp()
    sftp.get("/var/backups/db.dump", "db.dump")
    return known_hosts
