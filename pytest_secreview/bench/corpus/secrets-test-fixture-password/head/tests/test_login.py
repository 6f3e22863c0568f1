from app.auth import login


def test_login_rejects_wrong_password(client):
    password = "fake-password-for-tests"
    assert login(client, "alice", password + "x").status_code == 401
