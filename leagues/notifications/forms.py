"""The preferences form: for each kind, the inbox and the e-mail on or off."""
from __future__ import annotations

from django import forms

from leagues.notifications.models import Kind


class PreferencesForm(forms.Form):
    def __init__(self, *args, choices: dict[str, tuple[bool, bool]], **kwargs):
        super().__init__(*args, **kwargs)
        for kind in Kind:
            inbox, email = choices[kind.value]
            self.fields[f"{kind.value}__inbox"] = forms.BooleanField(required=False, initial=inbox, label=kind.label)
            self.fields[f"{kind.value}__email"] = forms.BooleanField(required=False, initial=email, label=kind.label)

    def rows(self):
        return [(kind.label, self[f"{kind.value}__inbox"], self[f"{kind.value}__email"]) for kind in Kind]

    def choices(self) -> dict[str, tuple[bool, bool]]:
        data = self.cleaned_data
        return {kind.value: (data[f"{kind.value}__inbox"], data[f"{kind.value}__email"]) for kind in Kind}
