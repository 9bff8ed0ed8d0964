"""
Each public model declares itself once (releases.declarations.Public), and what reads the
declarations — the write path, the public change log, the history, the keys — finds every one.
"""

from django.apps import apps

from releases import public_log
from releases.declarations import declared, public_models, type_of


def catalog_models():
    return list(apps.get_app_config("releases").get_models())


def test_a_model_the_public_sees_declares_itself_and_only_such_a_model():
    readable = {m.__name__ for m in catalog_models() if hasattr(m._default_manager, "published")}
    declaring = {m.__name__ for m in catalog_models() if declared(m)}
    assert readable == declaring
    assert {"Release", "Feature", "Link", "Track", "Area", "AreaAlias", "StageClaim"} <= declaring


def test_the_declarations_are_whole_and_name_real_foreign_keys():
    models = public_models()
    assert len({m.public.order for m in models.values()}) == len(models)
    for name, model in models.items():
        assert model.public.type == name and type_of(model) == name
        for field in (*model.public.references, *model.public.key_path):
            assert model._meta.get_field(field).many_to_one, (name, field)


def test_a_mirror_creates_what_others_refer_to_first():
    order = public_log.types()
    for name, model in public_models().items():
        for field in model.public.references:
            target = type_of(model._meta.get_field(field).related_model)
            assert order.index(target) <= order.index(name), (name, field)
