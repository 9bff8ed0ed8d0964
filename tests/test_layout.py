"""
The layout the README's "Where things are" describes, held: no import cycles among the
project's modules (imports inside functions count); the surfaces that answer requests (api,
pages, admin, web) import none of one another; the services they use (importing, links) import
no surface; the query layer (queries) imports neither; and the core (its modules, and the
models, managers and templatetags packages alike) imports none of them.

A string is an import too: ``model("Feature")`` (releases.declarations.model, the core's one
lazy way to a model) and ``apps.get_model("releases", "Feature")`` count as imports of the
module that defines the model, and ``reverse("admin:…")`` as an import of the admin. The loop
those lazy lookups make (the models call the write path, which reaches the models by name) is
allowed inside the core only.
"""

import ast
from pathlib import Path

from django.apps import apps
from django.conf import settings

RELEASES = Path(settings.BASE_DIR) / "releases"
SURFACES = ("api", "pages", "admin", "web", "importing", "links", "notifications", "management")
ANSWERING = ("api", "pages", "admin", "web")  # surfaces that answer requests
SERVICES = ("importing", "links", "notifications")  # what the surfaces use
QUERY_LAYER = ("queries",)  # beneath every surface


def modules():
    """{dotted name: (path, is a package)} of every module of the app but its migrations."""
    found = {}
    for path in RELEASES.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        parts = list(path.relative_to(RELEASES.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def imports(name, path, is_package, known, lazy=True):
    """The project's modules ``name`` imports, anywhere in its file (with ``lazy``, by name
    too: ``string_references``)."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    targets = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            wanted = [f"{module}.{alias.name}" for alias in node.names]
            wanted = [item if item in known else module for item in wanted]
        elif isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        elif lazy and isinstance(node, ast.Call):
            # The admin naming its own URLs is no crossing: the package's name is not an import.
            wanted = [t for t in string_references(node) if not name.startswith(f"{t}.")]
        else:
            continue
        for target in wanted:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
    return targets


def string_references(call):
    """The modules a call names in a string: a model looked up by name, an admin URL."""
    function = (
        call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    )
    strings = [
        a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
    ]
    if function in ("model", "get_model", "log_model", "catalog_model") and strings:
        try:
            return [apps.get_model("releases", strings[-1].rpartition(".")[2]).__module__]
        except LookupError:
            return []
    if function == "reverse" and strings and strings[0].startswith("admin:"):
        return ["releases.admin"]
    return []


def graph(lazy=True):
    known = modules()
    return {name: imports(name, *known[name], known, lazy=lazy) for name in known}


def cycle_from(start, edges):
    """A path of imports from ``start`` back to itself, or None."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for target in edges[node]:
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def test_no_module_imports_itself_through_others():
    edges = graph(lazy=False)
    cycles = [cycle for name in edges if (cycle := cycle_from(name, edges))]
    assert cycles == []


def test_a_loop_through_a_model_looked_up_by_name_stays_in_the_core():
    """The models declare their managers, whose QuerySets reach the other models by name: the
    one loop, and only the core's (a surface or a service that looked a model up by name, or
    a core module that named an admin URL, would show here or in the crossing tests)."""
    edges = graph()
    looping = {name for name in edges if cycle_from(name, edges)}
    assert {"releases.managers.catalog", "releases.models.features"} <= looping
    assert {name for name in looping if package(name) is not None} == set()


def test_string_references_are_seen():
    call = ast.parse('model("Feature")').body[0].value
    assert string_references(call) == ["releases.models.features"]
    call = ast.parse('reverse("admin:releases_link_changelist")').body[0].value
    assert string_references(call) == ["releases.admin"]
    assert string_references(ast.parse('reverse("page-release")').body[0].value) == []


def test_the_core_imports_no_surface():
    edges = graph()
    surfaces = tuple(f"releases.{surface}" for surface in SURFACES)
    core = [name for name in edges if package(name) is None]
    assert "releases.models" in core and "releases.writes" in core
    wrong = {
        name: sorted(target for target in edges[name] if target.startswith(surfaces))
        for name in core
    }
    assert {name: targets for name, targets in wrong.items() if targets} == {}


def test_a_cycle_is_found_where_there_is_one():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycle_from("a", edges) == ["a", "b", "c", "a"]
    assert cycle_from("d", edges) is None


# The core's packages: alike with its modules (writes, declarations, ...) in every rule.
CORE_PACKAGES = ("models", "managers", "templatetags")


def package(name):
    """The package of the app a module is in ("api" for releases.api.views), or None (core)."""
    parts = name.split(".")
    inside = parts[1] if len(parts) > 2 or (len(parts) == 2 and is_package(name)) else None
    return None if inside in CORE_PACKAGES else inside


def is_package(name):
    return (RELEASES.parent / name.replace(".", "/") / "__init__.py").exists()


def crossings(sources, targets):
    """{module: [modules it imports]} where a module of ``sources`` imports one of ``targets``."""
    edges = graph()
    found = {}
    for name, imported in edges.items():
        source = package(name)
        if source in sources:
            wrong = sorted(
                target
                for target in imported
                if package(target) in targets and package(target) != source
            )
            if wrong:
                found[name] = wrong
    return found


def test_no_surface_that_answers_requests_imports_another():
    assert crossings(ANSWERING, ANSWERING) == {}


def test_no_service_imports_a_surface():
    assert crossings(SERVICES, ANSWERING) == {}


def test_the_query_layer_imports_no_surface_and_no_service():
    assert crossings(QUERY_LAYER, ANSWERING + SERVICES) == {}


def test_the_core_imports_no_surface_service_or_query_layer():
    edges = graph()
    core = [name for name in edges if package(name) is None]
    assert "releases.models" in core and "releases.canonical" in core
    assert "releases.managers.catalog" in core and "releases.templatetags.catalog" in core
    above = set(SURFACES + QUERY_LAYER)
    wrong = {name: sorted(t for t in edges[name] if package(t) in above) for name in core}
    assert {name: targets for name, targets in wrong.items() if targets} == {}


def test_the_crossing_rule_sees_a_crossing():
    assert package("releases.api.views") == "api" and package("releases.models") is None
    assert package("releases.managers.rows") is None  # the core, as the models are
    assert package("releases.queries") == "queries"
    assert crossings(("pages",), ("queries",))  # the pages do read through the query layer


def longer_than(limit, package=""):
    """{path: lines} of the app's modules (migrations aside) under ``package`` over ``limit``."""
    return {
        str(path.relative_to(RELEASES.parent)): count
        for name, (path, _) in modules().items()
        if name.startswith(f"releases.{package}" if package else "releases")
        and (count := len(path.read_text().splitlines())) > limit
    }


def test_no_module_is_over_500_lines():
    """A module a newcomer can read: the app's modules (migrations aside) stay under 500 lines."""
    assert longer_than(500) == {}


def test_the_query_layer_keeps_each_module_under_400_lines():
    # Issue 31's promise for releases/queries/; the upgrade notes' FilterSets once took
    # filtersets.py to 436 lines and now have a module of their own.
    assert longer_than(400, "queries") == {}
