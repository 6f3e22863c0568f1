def may_administer(user) -> bool:
    return user.staff and user.verified_mfa
