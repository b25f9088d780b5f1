"""The site's stylesheet: a short page keeps its footer at the bottom of the window."""
import re
from pathlib import Path

from django.conf import settings

CSS = (Path(settings.BASE_DIR) / "static" / "css" / "site.css").read_text(encoding="utf-8")


def rules(selector: str) -> str:
    """Every declaration given to exactly ``selector``, joined."""
    return " ".join(m.group(1) for m in re.finditer(r"(?m)^" + re.escape(selector) + r"\s*{([^}]*)}", CSS))


def test_the_body_is_a_full_height_column_so_the_footer_sticks_to_the_bottom():
    body = rules("body")
    assert re.search(r"min-height:\s*100vh", body)
    assert re.search(r"display:\s*flex", body) and re.search(r"flex-direction:\s*column", body)
    assert re.search(r"flex:\s*1", rules("body > main") + rules("main"))
