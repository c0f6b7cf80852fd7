"""NUL in every string member: the mutations scripts/schemathesis_hooks.py sends, and the
coverage report scripts/schemathesis.sh prints after the run.

For a request the intake took (2xx) or refused only for what the database holds (404, 409,
422), each string member of its JSON body, each path parameter and each query parameter is
sent again with a NUL in the middle, one at a time. The answer must be 4xx and change
nothing; a body member's refusal must be `400` naming it in `error.field`. Each member is
tried a few times per operation, and every string member the spec declares must have been
refused at least once:

    python3 scripts/schemathesis_nul.py docs/openapi.yaml LOG    # exit 1 listing the members never tried
"""

import json
import sys
import urllib.parse

# Originals worth mutating: the request was well formed, so a refusal of the copy is the NUL's.
MUTATED_STATUSES = {200, 201, 202, 404, 409, 422}
TRIES_PER_MEMBER = 3

# Operations no request of the run can pass, so none is mutated: Amazon's SNS messages are
# signed by a certificate of Amazon SNS's hosts, which the product trusts alone (the stub's
# is trusted only by the lab's executable). Their members' refusals are tested with signed
# messages in AmazonNotificationTests, AmazonEndToEndTests and the hint matrix.
UNSIGNABLE = {"receiveAmazonNotification"}


def string_leaves(value, path=()):
    """(path, string) for every string in a decoded JSON value; array indices are ints."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from string_leaves(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from string_leaves(item, path + (index,))


def with_nul(text):
    middle = len(text) // 2
    return text[:middle] + "\x00" + text[middle:]


def replaced(value, path, new):
    """A copy of `value` with the leaf at `path` set to `new`."""
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = replaced(value[path[0]], path[1:], new)
    return copy


def display(path):
    """As the intake names a member: `google_play.product_id`, `items[2]`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + part
    return text


def template(path):
    """The member as the spec declares it: indices and free-form keys left out."""
    return ".".join(part for part in path if isinstance(part, str))


def mutations(request, operation_path):
    """(kind, member, method, url, body) for each NUL copy of a sent request."""
    url = urllib.parse.urlsplit(request.url)
    body = None
    if request.body:
        try:
            body = json.loads(request.body)
        except ValueError:
            body = None
    if isinstance(body, (dict, list)):
        for path, text in string_leaves(body):
            mutated = json.dumps(replaced(body, path, with_nul(text))).encode()
            yield "body", path, request.method, request.url, mutated
    segments = url.path.split("/")
    for index, part in enumerate(operation_path.split("/")):
        if part.startswith("{") and index < len(segments):
            copy = list(segments)
            copy[index] = urllib.parse.quote(with_nul(urllib.parse.unquote(segments[index])), safe="")
            yield "path", (part.strip("{}"),), request.method, url._replace(path="/".join(copy)).geturl(), request.body
    query = urllib.parse.parse_qsl(url.query, keep_blank_values=True)
    for index, (name, value) in enumerate(query):
        copy = list(query)
        copy[index] = (name, with_nul(value))
        mutated_url = url._replace(query=urllib.parse.urlencode(copy)).geturl()
        yield "query", (name,), request.method, mutated_url, request.body


def refusal_problem(kind, member, response):
    """Why the answer to a NUL copy is wrong, or None."""
    if not 400 <= response.status_code < 500:
        return f"answered {response.status_code}, not 4xx"
    if kind != "body" or response.status_code != 400:
        return None
    try:
        field = response.json()["error"].get("field")
    except (ValueError, KeyError, AttributeError):
        return "answered 400 without the API's error shape"
    if field != display(member):
        return f"answered 400 naming {field!r}, not {display(member)!r}"
    return None


# MARK: coverage


def declared_members(spec):
    """operationId -> set of declared string members ("body:google_play.product_id", "path:id")."""
    def resolve(schema):
        while isinstance(schema, dict) and "$ref" in schema:
            node = spec
            for part in schema["$ref"].lstrip("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def strings(schema, prefix, seen):
        schema = resolve(schema)
        if not isinstance(schema, dict) or id(schema) in seen:
            return set()
        seen = seen | {id(schema)}
        found = set()
        kinds = schema.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "string" in kinds and prefix:
            found.add(prefix)
        for key in ("oneOf", "anyOf", "allOf"):
            for sub in schema.get(key, []):
                found |= strings(sub, prefix, seen)
        for key in ("if", "then", "else"):
            if key in schema:
                found |= strings(schema[key], prefix, seen)
        for name, sub in schema.get("properties", {}).items():
            found |= strings(sub, f"{prefix}.{name}" if prefix else name, seen)
        if "items" in schema:
            found |= strings(schema["items"], prefix, seen)
        return found

    members = {}
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            found = set()
            for parameter in operation.get("parameters", []):
                parameter = resolve(parameter)
                if parameter["in"] in ("path", "query") and strings(parameter["schema"], "x", set()):
                    found.add(f"{parameter['in']}:{parameter['name']}")
            content = resolve(operation.get("requestBody", {})).get("content", {})
            for media in content.values():
                found |= {f"body:{member}" for member in strings(media.get("schema", {}), "", set())}
            if found:
                members[operation["operationId"]] = found
    return members


def report(spec_path, log_path):
    import yaml

    with open(spec_path) as file:
        spec = yaml.safe_load(file)
    tried = {}
    try:
        with open(log_path) as file:
            for line in file:
                operation, member = line.split()
                tried.setdefault(operation, set()).add(member)
    except FileNotFoundError:
        pass
    missing = []
    total = 0
    for operation, members in sorted(declared_members(spec).items()):
        if operation in UNSIGNABLE:
            print(f"schemathesis: NUL not tried in {operation}: no request of the run can be signed for it")
            continue
        total += len(members)
        missing += [f"{operation} {member}" for member in sorted(members - tried.get(operation, set()))]
    print(f"schemathesis: NUL refused in {total - len(missing)} of {total} string members of the spec")
    for line in missing:
        print(f"schemathesis: NUL never tried in {line}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(report(sys.argv[1], sys.argv[2]))
