#!/usr/bin/env python3
"""The PostgreSQL deployment's own checks, run by scripts/check_deploy.py (see its usage):

    check_overlay(documents, directory, problem)  what deploy/kubernetes-postgres renders keeps nothing
                                                  of SQLite, and runs every stateful stage replicated
                                                  on IAP_DATABASE_URL (from a Secret) after `iap migrate`
    check_compose(config, problem)                docker-compose.yml's profile postgres, in the output
                                                  of `docker-compose config`

Each problem is reported through `problem`, check_deploy.py's.
"""


def _counting(problem, found):
    """`problem`, also noting each message in `found`."""

    def report(message):
        found.append(message)
        problem(message)

    return report


# The stages that hold state, and how many of each the PostgreSQL overlay runs at least.
REPLICATED_STAGES = {"iap-intake": 2, "iap-fulfiller": 2, "iap-notifier": 2}


def check_overlay(documents, directory, problem):
    """The overlay keeps nothing of SQLite, and every stateful stage runs replicated on PostgreSQL."""
    if not documents:
        return  # the build failed, and said so
    found = []
    problem = _counting(problem, found)
    by_kind = {}
    for document in documents:
        by_kind.setdefault(document["kind"], {})[document["metadata"]["name"]] = document
    for kind in ("StatefulSet", "PersistentVolumeClaim"):
        for name in by_kind.get(kind, {}):
            problem(f"{directory}: renders {kind}/{name}; the PostgreSQL overlay must hold no SQLite state")
    for name, settings in by_kind.get("ConfigMap", {}).items():
        if "IAP_DB_PATH" in settings.get("data", {}):
            problem(f"{directory}: ConfigMap/{name} still sets IAP_DB_PATH")
    deployments = by_kind.get("Deployment", {})
    for name, least in REPLICATED_STAGES.items():
        deployment = deployments.get(name)
        if deployment is None:
            problem(f"{directory}: renders no Deployment/{name}")
            continue
        if deployment["spec"].get("replicas", 1) < least:
            problem(f"{directory}: Deployment/{name} runs {deployment['spec'].get('replicas', 1)} replica(s), "
                    f"not at least {least}")
        pod = deployment["spec"]["template"]["spec"]
        for volume in pod.get("volumes", []):
            if "emptyDir" not in volume:
                problem(f"{directory}: Deployment/{name} mounts volume {volume['name']}, not only emptyDirs")
        init = pod.get("initContainers", [])
        if not any(c.get("args", [None])[0] == "migrate" for c in init):
            problem(f"{directory}: Deployment/{name} has no init container running `iap migrate`")
        for container in init + pod["containers"]:
            url = [e for e in container.get("env", []) if e["name"] == "IAP_DATABASE_URL"]
            if not url or "secretKeyRef" not in url[0].get("valueFrom", {}):
                problem(f"{directory}: Deployment/{name}: container {container['name']} does not read "
                        f"IAP_DATABASE_URL from a Secret (secretKeyRef)")
    if not found:
        print(f"check-deploy: {directory} renders no StatefulSet nor volume claim; "
              + ", ".join(f"{n} x{deployments[n]['spec']['replicas']}" for n in REPLICATED_STAGES)
              + " read IAP_DATABASE_URL from a Secret, after `iap migrate`")


STATEFUL_COMMANDS = {"migrate", "intake", "fulfiller", "notifier"}


def check_compose(config_path, problem):
    """The postgres profile, in `docker-compose config`'s output (every service, whatever its profile)."""
    import yaml

    with open(config_path) as file:
        services = yaml.safe_load(file)["services"]
    found = []
    problem = _counting(problem, found)
    plain = {n: s for n, s in services.items() if not s.get("profiles")}
    profiled = {n: s for n, s in services.items() if "postgres" in s.get("profiles", [])}
    if not profiled:
        problem("docker-compose.yml has no service in the profile postgres")
    for name, service in plain.items():
        # `docker-compose up` without a profile must not need one of the profile's services.
        for dependency in service.get("depends_on", {}):
            if services.get(dependency, {}).get("profiles"):
                problem(f"docker-compose.yml: {name} (no profile) depends on {dependency}, which has a profile")
        if "IAP_DATABASE_URL" in service.get("environment", {}):
            problem(f"docker-compose.yml: {name} (no profile) sets IAP_DATABASE_URL: the default stays SQLite")
    prefixes = {s.get("environment", {}).get("IAP_QUEUE_PREFIX") for s in plain.values() if "environment" in s}
    stages = {}
    for name, service in profiled.items():
        command = (service.get("command") or [None])[0]
        environment = service.get("environment", {})
        if "IAP_AMQP_URL" not in environment and "IAP_DATABASE_URL" not in environment:
            continue  # not an iap process (PostgreSQL, the load balancer)
        # `--profile postgres up` starts the profile-less pipeline too: the queues must differ.
        if environment.get("IAP_QUEUE_PREFIX") in prefixes:
            problem(f"docker-compose.yml: {name} shares IAP_QUEUE_PREFIX "
                    f"{environment.get('IAP_QUEUE_PREFIX')} with the profile-less stages")
        if command not in STATEFUL_COMMANDS:
            continue
        stages[command] = stages.get(command, 0) + service.get("deploy", {}).get("replicas", 1)
        if not environment.get("IAP_DATABASE_URL", "").startswith("postgres://"):
            problem(f"docker-compose.yml: {name} runs `iap {command}` without a postgres:// IAP_DATABASE_URL")
        if service.get("volumes"):
            problem(f"docker-compose.yml: {name} mounts {service['volumes']}: no SQLite volume in the profile")
        if command != "migrate" and service.get("depends_on", {}).get("migrate-pg", {}).get("condition") \
                != "service_completed_successfully":
            problem(f"docker-compose.yml: {name} does not wait for migrate-pg to complete")
    for command in sorted(STATEFUL_COMMANDS - {"migrate"}):
        if stages.get(command, 0) < 2:
            problem(f"docker-compose.yml: the profile postgres runs {stages.get(command, 0)} {command}(s), not 2+")
    if not found:
        print("check-deploy: docker-compose.yml's profile postgres: "
              + ", ".join(f"{n} x{stages[n]}" for n in sorted(stages))
              + " on IAP_DATABASE_URL after migrate, on queues apart from the profile-less pipeline's")
