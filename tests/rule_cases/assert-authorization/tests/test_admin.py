# noitem: assert-authorization
def test_admin_flag(admin_user):
    assert admin_user.is_superuser
    assert admin_user.has_perm("accounts.delete_user")
