"""`afr config`: the settings in force, and where each value came from."""

from __future__ import annotations

import click

from .context import Context, handle_errors, pass_ctx
from .output import format_table, json_text


@click.command("config")
@click.option("--all", "show_all", is_flag=True,
              help="Every setting (default: those that differ from afr's defaults, and "
                   "the settings file in use).")
@click.option("--json", "as_json", is_flag=True, help="As JSON: path → {value, source}.")
@pass_ctx
@handle_errors
def config(ctx: Context, show_all: bool, as_json: bool) -> None:
    """Print the settings in force and where each value came from: a flag (--db,
    --schema), an environment variable, the settings file, or afr's default.

    Settings are resolved once when a command starts, flags > environment > settings
    file > defaults; every run and eval run stores the settings that produced it (`afr
    runs show ID`, `afr eval compare A B` print those that differ). The settings file is
    $AFR_CONFIG, else ./afr.toml, else ~/.config/afr/config.toml; its tables are the
    sections shown here ([af], [llm], [llm.steps.rerank] …).

    \b
    Examples:
      afr config
      afr config --all --json
      AFR_LLM_MODEL=qwen3 afr config
    """
    from afr.settings import Settings, leaves, value_at

    resolved = ctx.resolve()
    rows = []
    for s in leaves(Settings):
        source = resolved.sources.get(s.path, "default")
        if source == "default" and not show_all:
            continue
        value = value_at(resolved.settings, s.path)
        shown = "(set)" if s.knob.secret and value else value
        rows.append((s.path, shown, source))
    if as_json:
        click.echo(json_text({p: {"value": v, "source": src} for p, v, src in rows}))
        return
    click.echo(f"settings file: {resolved.file or '(none)'}")
    if not rows:
        click.echo("every setting has afr's default (afr config --all lists them)")
        return
    click.echo(format_table(["setting", "value", "from"],
                            [(p, _text(v), src) for p, v, src in rows]))


def _text(value: object) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


COMMANDS = [config]
