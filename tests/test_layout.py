"""
The layout the README's "Where things are" describes, held: no import cycles among the
project's modules (imports inside functions count); the surfaces that answer requests (api,
pages, admin, web) import none of one another; the services they use (importing, links) import
no surface; the query layer (queries) imports neither; and the core imports none of them.
"""

import ast
from pathlib import Path

from django.conf import settings

RELEASES = Path(settings.BASE_DIR) / "releases"
SURFACES = ("api", "pages", "admin", "web", "importing", "links", "management")
ANSWERING = ("api", "pages", "admin", "web")  # surfaces that answer requests
SERVICES = ("importing", "links")  # what the surfaces use
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


def imports(name, path, is_package, known):
    """The project's modules ``name`` imports, anywhere in its file."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            wanted = [f"{module}.{alias.name}" for alias in node.names]
            wanted = [item if item in known else module for item in wanted]
        elif isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        else:
            continue
        for target in wanted:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                targets.add(target)
    return targets


def graph():
    known = modules()
    return {name: imports(name, *known[name], known) for name in known}


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
    edges = graph()
    cycles = [cycle for name in edges if (cycle := cycle_from(name, edges))]
    assert cycles == []


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


CORE_PACKAGES = ("models",)  # the core, in a package of its own for its size


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
    above = set(SURFACES + QUERY_LAYER + ("templatetags",))
    wrong = {name: sorted(t for t in edges[name] if package(t) in above) for name in core}
    assert {name: targets for name, targets in wrong.items() if targets} == {}


def test_the_crossing_rule_sees_a_crossing():
    assert package("releases.api.views") == "api" and package("releases.models") is None
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
