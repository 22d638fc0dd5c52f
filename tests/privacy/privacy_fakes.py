"""Real-looking FAKE secrets, assembled at run time so no key-shaped string is committed.

Every value is built from a vendor prefix split in two and characters drawn from a
seeded generator: the shape (prefix, alphabet, length) is what the detector must know,
the value means nothing to any service.
"""

from __future__ import annotations

import base64
import random
import string

B62 = string.ascii_letters + string.digits
B64URL = B62 + "-_"
B64 = B62 + "+/"
B32 = string.ascii_uppercase + "234567"
HEX = "0123456789abcdef"


def chars(alphabet: str, n: int, seed: int) -> str:
    """``n`` characters of ``alphabet`` from a generator seeded with ``seed``; holds a digit."""
    rng = random.Random(seed)
    body = "".join(rng.choice(alphabet) for _ in range(n))
    digits = [c for c in alphabet if c.isdigit()]
    return body if not digits or any(c.isdigit() for c in body) else body[:-1] + digits[0]


def join(*parts: str) -> str:
    """Concatenate parts (keeps vendor prefixes split in the source)."""
    return "".join(parts)


def pem_block(label: str, seed: int, *, lines: int = 6, escaped: bool = False, end: bool = True) -> str:
    """A PEM-armoured block of random base64 (``label`` such as ``RSA PRIVATE KEY``)."""
    nl = "\\n" if escaped else "\n"
    body = nl.join(chars(B64, 64, seed + i) for i in range(lines))
    block = f"-----BEGIN {label}-----{nl}{body}{nl}"
    return block + (f"-----END {label}-----" if end else "")


def jwt(seed: int) -> str:
    """A JWT-shaped token: base64url header and payload, a random signature."""
    def b64(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")

    head = b64(b'{"alg":"HS256","typ":"JWT"}')
    payload = b64(('{"sub":"%s","iat":1700000000}' % chars(HEX, 12, seed)).encode())
    return f"{head}.{payload}.{chars(B64URL, 43, seed + 1)}"


def secret_cases() -> list[tuple[str, str, str]]:
    """``(kind, text, secret)``: ``text`` holds ``secret``, which must be replaced by ``[secret:kind]``."""
    openai_proj = join("sk-", "proj-", chars(B64URL, 74, 1), "T3Blb", "kFJ", chars(B64URL, 74, 2))
    openai_legacy = join("sk-", chars(B62, 20, 3), "T3Blb", "kFJ", chars(B62, 20, 4))
    anthropic = join("sk-", "ant-", "api03-", chars(B64URL, 93, 5), "AA")
    github = join("gh", "p_", chars(B62, 36, 6))
    github_fine = join("github", "_pat_", chars(B62 + "_", 82, 7))
    aws_key = join("AK", "IA", chars(B32, 16, 8))
    aws_secret = chars(B62 + "/+", 40, 9)
    google = join("AI", "za", chars(B64URL, 35, 10))
    slack = join("xo", "xb-", chars(string.digits, 12, 11), "-", chars(string.digits, 13, 12), "-", chars(B62, 24, 13))
    hook = join("https://hooks.", "slack.com/services/T", chars(B32, 10, 14), "/B", chars(B32, 10, 15), "/",
                chars(B62, 24, 16))
    stripe = join("sk", "_live_", chars(B62, 24, 17))
    stripe_rk = join("rk", "_test_", chars(B62, 99, 18))
    bearer = chars(B64URL, 40, 19)
    basic = base64.b64encode(b"deploy:" + chars(B62, 12, 20).encode()).decode()
    rsa = pem_block("RSA " + "PRIVATE KEY", 30)
    ssh = pem_block("OPENSSH " + "PRIVATE KEY", 40, lines=4)
    escaped = pem_block("PRIVATE " + "KEY", 50, escaped=True)
    truncated = pem_block("EC " + "PRIVATE KEY", 60, lines=3, end=False).rstrip("\n")
    token = jwt(70)
    return [
        ("openai-api-key", f"my key is {openai_proj} thanks", openai_proj),
        ("openai-api-key", f"OPENAI_API_KEY={openai_legacy}", openai_legacy),
        ("anthropic-api-key", f'client = Anthropic(api_key="{anthropic}")', anthropic),
        ("github-token", f"git remote set-url origin https://x:{github}@github.com/o/r", github),
        ("github-token", f"GH_TOKEN {github_fine}", github_fine),
        ("aws-access-key", f"aws_access_key_id = {aws_key}", aws_key),
        ("aws-secret-key", f"aws_secret_access_key = {aws_secret}", aws_secret),
        ("google-api-key", f"https://maps.googleapis.com/maps/api/js?key={google}&v=3", google),
        ("slack-token", f"SLACK_BOT={slack}", slack),
        ("slack-webhook", f"curl -X POST {hook} -d '{{}}'", hook),
        ("stripe-key", f"stripe.api_key = '{stripe}'", stripe),
        ("stripe-key", f"restricted: {stripe_rk}", stripe_rk),
        ("bearer-token", f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com", bearer),
        ("basic-auth", f"Authorization: Basic {basic}", basic),
        ("private-key", f"here is my key:\n{rsa}\nwhy does ssh refuse it?", rsa),
        ("private-key", f"{ssh}\n", ssh),
        ("private-key", f'{{"type": "service_account", "private_key": "{escaped}\\n"}}', escaped),
        ("private-key", f"pasted half of it:\n{truncated}", truncated),
        ("jwt", f"the cookie was session={token}; Path=/", token),
        ("password-in-url", "DATABASE_URL=postgres://app:Zx9-pQ7wL2@db.internal:5432/prod", "Zx9-pQ7wL2"),
        ("password-in-url", "mongodb+srv://admin:hunter2hunter2@cluster0.example.net/test", "hunter2hunter2"),
        ("url-secret-param", f"GET https://api.example.com/v1/items?access_token={bearer}&page=2", bearer),
        ("password", "DB_PASSWORD=correct-horse-battery-9", "correct-horse-battery-9"),
        ("password", "export PGPASSWORD='s3cr3t pass phrase'", "s3cr3t pass phrase"),
        ("password", "mysql -u root --password=Tr0ub4dor&3 prod", "Tr0ub4dor&3"),
        ("password", 'config = {"password": "Summer2024!"}', "Summer2024!"),
        ("password", "db:\n  password: Kx82-mq1Pz\n", "Kx82-mq1Pz"),
        ("credential", "SECRET_KEY=django-insecure-4%2k#n0x=", "django-insecure-4%2k#n0x="),
        ("credential", f'"api_key": "{chars(HEX, 32, 80)}"', chars(HEX, 32, 80)),
        ("credential", f"X-Api-Key: {chars(B62, 32, 81)}", chars(B62, 32, 81)),
        ("credential", f"WEBHOOK_SIGNING_KEY={chars(B62, 30, 82)}", chars(B62, 30, 82)),
    ]


def near_misses() -> list[str]:
    """Texts that hold no secret and must come out of redaction unchanged."""
    sha = chars(HEX, 40, 90)
    image = base64.b64encode(bytes(random.Random(91).randrange(256) for _ in range(600))).decode()
    integrity = base64.b64encode(bytes(random.Random(92).randrange(256) for _ in range(64))).decode()
    return [
        f"commit {sha}\nAuthor: Ada <ada@example.com>",
        f"git checkout {sha[:7]} && git cherry-pick {sha}",
        "conversation 123e4567-e89b-12d3-a456-426614174000 started",
        f"sha256:{chars(HEX, 64, 93)}",
        f'<img src="data:image/png;base64,{image}" alt="chart">',
        "saved image_base64.png and screenshot_2024-05-01.png",
        f'"integrity": "sha512-{integrity}"',
        "The token limit is 4096 and the password must be 12 characters long.",
        "MAX_TOKENS=4096\nTOKENIZERS_PARALLELISM=false\nAWS_REGION=eu-west-1",
        "PASSWORD_FILE=/run/secrets/db_password\nTOKEN_URL=https://auth.example.com/token",
        'api_key = os.environ["OPENAI_API_KEY"]\ntoken = get_token()\nself.password = password',
        "password: ${DB_PASSWORD}\nAPI_KEY=$API_KEY\npassword = '****'\nSECRET=xxxx",
        "ids msg_01XFDUDYJgAACzvnptvVoYEL toolu_01A09q90qw90lq917835lq9 req_011CSHoEeqs5C35K2UUqR7Fy",
        "Bearer authentication is described in RFC 6750.",
        "Authorization: Bearer $TOKEN\nAuthorization: Bearer <token>",
        "git@github.com:org/repo.git and https://github.com/org/repo?tab=readme-ov-file",
        "postgres://localhost:5432/db and https://user@example.com/path",
        pem_block("PUBLIC KEY", 94),
        pem_block("CERTIFICATE", 95),
        "xoxo, Anna. See you at the task-proj-planning-meeting-for-the-quarterly-roadmap-review.",
        "prefixes like AKIA, ghp_, sk-ant- and AIza identify vendors",
        "The key: understanding recursion. Token: a unit of text.",
        "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42 and https://example.com/search?key=recursion",
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "Use `--token` to pass a token, and `--password-file` for the password.",
    ]
