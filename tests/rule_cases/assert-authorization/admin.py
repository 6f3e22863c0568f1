from django.http import JsonResponse


def delete_user(request, user_id):
    # ruleid: assert-authorization
    assert request.user.is_superuser
    # ruleid: assert-authorization
    assert request.user.has_perm("accounts.delete_user"), "forbidden"
    # ok: assert-authorization
    assert user_id > 0
    return JsonResponse({"deleted": user_id})


def edit_post(user, post):
    # ruleid: assert-authorization
    assert post.owner_id == user.id
    # ok: assert-authorization
    assert isinstance(post.title, str)
    post.save()
