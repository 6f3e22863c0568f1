def may_administer(user) -> bool:
    return user.staff or user.verified_mfa
