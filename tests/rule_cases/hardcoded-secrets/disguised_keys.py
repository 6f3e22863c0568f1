"""Cloud keys split, encoded or reversed: each reads as the key Python builds from it."""

import base64
import codecs

# ruleid: hardcoded-secrets
SPLIT = '{{AWS_ACCESS_KEY_ID_HEAD}}' '{{AWS_ACCESS_KEY_ID_TAIL}}'
# ruleid: hardcoded-secrets
JOINED = "{{AWS_ACCESS_KEY_ID_HEAD}}" + "{{AWS_ACCESS_KEY_ID_TAIL}}"
# ruleid: hardcoded-secrets
ENCODED = base64.b64decode('{{AWS_ACCESS_KEY_ID_BASE64}}').decode()
# ruleid: hardcoded-secrets
HEXED = bytes.fromhex('{{AWS_ACCESS_KEY_ID_HEX}}').decode()
# ruleid: hardcoded-secrets
REVERSED = '{{AWS_ACCESS_KEY_ID_REVERSED}}'[::-1]
# ok: hardcoded-secrets
GREETING = base64.b64decode('aGVsbG8gZnJvbSB0aGUgYnVpbGQgc2VydmVy').decode()
# ok: hardcoded-secrets
SLUG = base64.b64decode('cmVsZWFzZS1jaGFubmVsLXN0YWJsZQ==').decode()
# ok: hardcoded-secrets
DIGEST = codecs.decode('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex')
# ok: hardcoded-secrets
PREFIX = 'AK' + 'IA'
