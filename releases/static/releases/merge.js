'use strict';
// Names for the searchable track picker (the admin's select2) that assistive technology reads.
window.addEventListener('load', function () {
    const $ = window.django && window.django.jQuery;
    if (!$) {
        return;
    }
    $('#id_track').next('.select2').find('.select2-selection[role=combobox]')
        .attr('aria-label', 'Track to merge into');
    $('#id_track').on('select2:open', function () {
        $('.select2-search__field').attr('aria-label', 'Search the tracks by name or slug');
    });
});
