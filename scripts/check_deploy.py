#!/usr/bin/env python3
"""Checks the deploy files against what reads them; run by scripts/check-deploy.sh.

    check_deploy.py kubernetes DIR VERSION...   every manifest against the Kubernetes schemas (strict),
                                                KEDA's kinds against deploy/kubernetes/schemas
    check_deploy.py kustomize DIR VERSION...    what `kustomize build DIR` (or `kubectl kustomize`) renders,
                                                checked the same way
    check_deploy.py postgres-overlay DIR VERSION...  the same, and it holds no SQLite state (no StatefulSet,
                                                no volume claim) and runs the stateful stages replicated
                                                on IAP_DATABASE_URL (check_deploy_postgres.py)
    check_deploy.py compose COMPOSE_CONFIG      the compose file's profile postgres (check_deploy_postgres.py)
    check_deploy.py settings FILE...            every IAP_* name in the files is a setting the code reads
    check_deploy.py rabbitmq DIR COMPOSE_CONFIG  rabbitmq.conf keys and plugins against the installed broker,
                                                the compose file's AMQP credentials against definitions.json,
                                                and an import of the definitions into a throwaway vhost

Each problem is printed on its own line; the exit status is 1 if there was any.
"""
import base64
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
import uuid

problems = []


def problem(message):
    problems.append(message)
    print(f"check-deploy: {message}", file=sys.stderr)


# MARK: Kubernetes

# Custom resources kubernetes-validate does not know, and the schema that checks each.
CRD_SCHEMAS = {
    ("keda.sh/v1alpha1", "ScaledObject"): "keda-scaledobject-v1alpha1.json",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): "keda-triggerauthentication-v1alpha1.json",
}


def check_kubernetes(directory, versions):
    import yaml

    kustomization_path = os.path.join(directory, "kustomization.yaml")
    with open(kustomization_path) as file:
        kustomization = yaml.safe_load(file)
    listed = kustomization.get("resources", [])
    present = sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "*.yaml")))
    present.remove("kustomization.yaml")
    for name in sorted(set(present) - set(listed)):
        problem(f"{directory}/{name} is not listed in kustomization.yaml resources")
    for name in sorted(set(listed) - set(present)):
        problem(f"kustomization.yaml lists {name}, which does not exist")

    checked = 0
    for name in present:
        path = os.path.join(directory, name)
        with open(path) as file:
            documents = [d for d in yaml.safe_load_all(file) if d is not None]
        for document in documents:
            label = f"{name}: {document.get('kind')}/{document.get('metadata', {}).get('name')}"
            passed = validate_manifest(label, document, versions, os.path.join(directory, "schemas"))
            if passed:
                print(f"check-deploy: {label} passed against {passed}")
            checked += 1
    if checked == 0:
        problem(f"no manifests found in {directory}")


def validate_manifest(label, document, versions, schemas):
    """Checks one manifest; returns what it passed against, or None after reporting why not."""
    import jsonschema
    import kubernetes_validate

    key = (document.get("apiVersion"), document.get("kind"))
    before = len(problems)
    if key in CRD_SCHEMAS:
        with open(os.path.join(schemas, CRD_SCHEMAS[key])) as file:
            schema = json.load(file)
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path)):
            where = ".".join(str(p) for p in error.absolute_path) or "(root)"
            problem(f"{label}: {where}: {error.message}")
        return f"schemas/{CRD_SCHEMAS[key]}" if len(problems) == before else None
    for version in versions:
        try:
            kubernetes_validate.validate(document, version, strict=True)
        except kubernetes_validate.SchemaNotFoundError:
            # A kind nobody checks would pass silently: refuse it instead.
            problem(f"{label}: no schema for {key} in Kubernetes {version} nor in schemas/")
        except kubernetes_validate.ValidationError as error:
            where = ".".join(str(p) for p in error.path) or "(root)"
            problem(f"{label}: Kubernetes {version}: {where}: {error.message}")
    return f"Kubernetes {', '.join(versions)} (strict)" if len(problems) == before else None


def kustomize_build(directory):
    """The manifests `kustomize build` renders, with the standalone tool or kubectl's own."""
    import shutil
    import yaml

    if shutil.which("kustomize"):
        command = ["kustomize", "build", directory]
    elif shutil.which("kubectl"):
        command = ["kubectl", "kustomize", directory]
    else:
        problem(f"neither kustomize nor kubectl is installed: cannot build {directory}")
        return []
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        problem(f"{' '.join(command)} failed: {(result.stderr or result.stdout).strip()[:2000]}")
        return []
    return [d for d in yaml.safe_load_all(result.stdout) if d is not None]


def check_kustomize(directory, versions):
    """Checks every manifest the build renders: patches and transformers included."""
    documents = kustomize_build(directory)
    before = len(problems)
    for document in documents:
        label = f"{directory} (built): {document.get('kind')}/{document.get('metadata', {}).get('name')}"
        validate_manifest(label, document, versions, "deploy/kubernetes/schemas")
    if documents and len(problems) == before:
        print(f"check-deploy: kustomize build {directory}: {len(documents)} manifests passed against "
              f"Kubernetes {', '.join(versions)} (strict) and schemas/")
    return documents


# MARK: Settings

def check_settings(paths):
    """A misspelt variable is silently ignored (its default applies), so refuse names the code never reads."""
    known = set()
    for source in glob.glob("Sources/**/*.swift", recursive=True):
        with open(source) as file:
            known.update(re.findall(r'"(IAP_[A-Z0-9_]+)"', file.read()))
    for path in paths:
        with open(path) as file:
            for number, line in enumerate(file, 1):
                for name in re.findall(r"\b(IAP_[A-Z0-9_]+)\b", line):
                    if name not in known:
                        problem(f"{path}:{number}: {name} is not a setting any stage reads")


# MARK: RabbitMQ


def broker_plugins_dir():
    dirs = sorted(glob.glob("/usr/lib/rabbitmq/lib/rabbitmq_server-*/plugins"))
    return dirs[-1] if dirs else None


def check_rabbitmq_conf(path, plugins):
    """Every key must be a mapping of the broker's schema: an unknown key stops the node at boot."""
    patterns = []
    for schema in glob.glob(os.path.join(plugins, "**", "*.schema"), recursive=True):
        with open(schema, errors="replace") as file:
            for mapping in re.findall(r'\{mapping,\s*"([^"]+)"', file.read()):
                parts = [r"[^.]+" if part.startswith("$") else re.escape(part) for part in mapping.split(".")]
                patterns.append(re.compile(r"\.".join(parts) + r"\Z"))
    if not patterns:
        problem(f"no configuration schemas under {plugins}")
        return
    with open(path) as file:
        for number, line in enumerate(file, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, separator, value = line.partition("=")
            key = key.strip()
            if not separator or not value.strip():
                problem(f"{path}:{number}: expected 'key = value', got {line!r}")
            elif not any(p.match(key) for p in patterns):
                problem(f"{path}:{number}: {key} is not a setting of the installed RabbitMQ")


def check_enabled_plugins(path, plugins):
    with open(path) as file:
        text = file.read().strip()
    match = re.fullmatch(r"\[([a-z0-9_,\s]*)\]\.", text)
    if not match:
        problem(f"{path}: expected an Erlang list of plugin names ending with '.', got {text!r}")
        return
    for name in filter(None, (n.strip() for n in match.group(1).split(","))):
        if not glob.glob(os.path.join(plugins, f"{name}-*")):
            problem(f"{path}: plugin {name} is not shipped with the installed RabbitMQ")


def password_matches(user, password):
    """RabbitMQ's password_hash: base64(salt[4] + sha256(salt + password)) for sha256."""
    algorithm = user.get("hashing_algorithm", "rabbit_password_hashing_sha256")
    digest = {"rabbit_password_hashing_sha256": hashlib.sha256, "rabbit_password_hashing_sha512": hashlib.sha512}
    if algorithm not in digest:
        return False
    raw = base64.b64decode(user["password_hash"])
    salt, expected = raw[:4], raw[4:]
    return digest[algorithm](salt + password.encode()).digest() == expected


def check_definitions_credentials(definitions, compose):
    """The compose stages log in with the user and password the definitions create."""
    url = compose["services"]["intake"]["environment"]["IAP_AMQP_URL"]
    parsed = urllib.parse.urlsplit(url)
    vhost = urllib.parse.unquote(parsed.path[1:]) if len(parsed.path) > 1 else "/"
    users = {u["name"]: u for u in definitions.get("users", [])}
    user = users.get(parsed.username)
    if user is None:
        problem(f"definitions.json has no user {parsed.username!r}, which docker-compose's IAP_AMQP_URL uses")
        return
    if not password_matches(user, urllib.parse.unquote(parsed.password or "")):
        problem(f"definitions.json's password_hash for {parsed.username!r} does not match docker-compose's IAP_AMQP_URL")
    if not any(v["name"] == vhost for v in definitions.get("vhosts", [])):
        problem(f"definitions.json does not create vhost {vhost!r}, which docker-compose's IAP_AMQP_URL uses")
    granted = [p for p in definitions.get("permissions", []) if p["user"] == parsed.username and p["vhost"] == vhost]
    if not granted or any(granted[0][k] != ".*" for k in ("configure", "write", "read")):
        problem(f"definitions.json does not grant {parsed.username!r} configure/write/read on {vhost!r}")


def check_definitions_import(definitions):
    """Imports the topology into a throwaway vhost of the running broker, which rejects what it cannot take."""
    vhost = f"iap-deploy-check-{uuid.uuid4().hex[:8]}"
    copy = {"vhosts": [{"name": vhost}]}
    for key in ("exchanges", "queues", "bindings", "policies"):
        copy[key] = [dict(item, vhost=vhost) for item in definitions.get(key, [])]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
        json.dump(copy, file)
    # The broker's node reads the file itself, as its own user.
    os.chmod(file.name, 0o644)
    try:
        result = subprocess.run(["rabbitmqctl", "-q", "import_definitions", file.name], capture_output=True, text=True)
        if result.returncode != 0:
            problem(f"the local broker refused definitions.json: {(result.stderr or result.stdout).strip()}")
            return
        listed = subprocess.run(
            ["rabbitmqctl", "-q", "list_queues", "-p", vhost, "--no-table-headers", "name", "type"],
            capture_output=True, text=True, check=True).stdout.split("\n")
        queues = dict(line.split("\t") for line in listed if "\t" in line)
        for queue in definitions.get("queues", []):
            wanted = queue.get("arguments", {}).get("x-queue-type", "classic")
            if queues.get(queue["name"]) != wanted:
                problem(f"queue {queue['name']} was imported as {queues.get(queue['name'])}, not {wanted}")
        print(f"check-deploy: the local broker imported definitions.json ({len(queues)} queues) into {vhost}")
    finally:
        os.unlink(file.name)
        subprocess.run(["rabbitmqctl", "-q", "delete_vhost", vhost], capture_output=True)


def check_rabbitmq(directory, compose_config):
    plugins = broker_plugins_dir()
    if plugins is None:
        problem("RabbitMQ is not installed here (no /usr/lib/rabbitmq/lib/rabbitmq_server-*/plugins)")
        return
    check_rabbitmq_conf(os.path.join(directory, "rabbitmq.conf"), plugins)
    check_enabled_plugins(os.path.join(directory, "enabled_plugins"), plugins)
    try:
        with open(os.path.join(directory, "definitions.json")) as file:
            definitions = json.load(file)
    except ValueError as error:
        problem(f"definitions.json does not parse: {error}")
        return
    import yaml

    # The output of `docker-compose config`: the file with its defaults filled in.
    with open(compose_config) as file:
        check_definitions_credentials(definitions, yaml.safe_load(file))
    check_definitions_import(definitions)


if __name__ == "__main__":
    sys.dont_write_bytecode = True  # no __pycache__ in scripts/ from importing check_deploy_postgres
    if len(sys.argv) >= 4 and sys.argv[1] == "kubernetes":
        check_kubernetes(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "kustomize":
        check_kustomize(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 4 and sys.argv[1] == "postgres-overlay":
        import check_deploy_postgres

        check_deploy_postgres.check_overlay(check_kustomize(sys.argv[2], sys.argv[3:]), sys.argv[2], problem)
    elif len(sys.argv) == 3 and sys.argv[1] == "compose":
        import check_deploy_postgres

        check_deploy_postgres.check_compose(sys.argv[2], problem)
    elif len(sys.argv) >= 3 and sys.argv[1] == "settings":
        check_settings(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "rabbitmq":
        check_rabbitmq(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if problems else 0)
