import random
import time


class SessionStore:
    def __init__(self):
        self.sessions = {}

    def create(self, user_id):
        session_id = "%032x" % random.getrandbits(128)
        self.sessions[session_id] = {"user": user_id, "at": time.time()}
        return session_id
