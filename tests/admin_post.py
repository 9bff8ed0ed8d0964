"""What an admin change page would post back: each form's values as the page shows them."""


def page_data(response):
    """
    The POST data of the change page ``response`` saved unchanged: the main form's fields, the
    inlines' management forms and rows, the hidden version each form was read at included.
    """
    context = response.context
    data = {}
    forms = [context["adminform"].form]
    for inline in context.get("inline_admin_formsets", []):
        forms += [inline.formset.management_form, *inline.formset.forms]
    for form in forms:
        for name in form.fields:
            bound = form[name]
            value = bound.value()
            if isinstance(value, bool):
                if value:
                    data[bound.html_name] = "on"
            elif value is not None:
                data[bound.html_name] = value
    return data
