import os


def restart():
    answer = input("service to restart: ")
    service = answer
    print("restarting", answer)
    os.system("systemctl restart " + service)


if __name__ == "__main__":
    restart()
