"""A renderer for exactly the Go-template subset that deploy/helm/wasserwarp uses, since helm
itself is not installed here: deploy_manifests_test.py renders the chart with it.
"""

import decimal
import json
import re
from pathlib import Path

import yaml


class TemplateError(Exception):
    pass


ACTION = re.compile(r"\{\{(-\s+)?(.*?)(\s+-)?\}\}", re.S)
# The value piped into the first command of a pipeline: none (nil is a value).
NOTHING = object()


def go_number(value):
    """A number as Helm prints it: values are float64, printed with %v."""
    number = float(value)
    if number == 0:
        return "0"
    digits, exponent = decimal.Decimal(repr(number)).normalize().as_tuple()[1:]
    power = len(digits) - 1 + exponent
    text = "".join(str(d) for d in digits)
    sign = "-" if number < 0 else ""
    # Go's shortest %g switches to an exponent at 1e6 (21 is JSON's rule, not this one).
    if power < -4 or power >= 6:
        mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
        return f"{sign}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    return sign + format(decimal.Decimal(repr(abs(number))).normalize(), "f")


def go_text(value):
    if value is None:
        return "<no value>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return go_number(value)
    if isinstance(value, (dict, list)):
        raise TemplateError(f"printing a {type(value).__name__} needs toYaml: {value!r}")
    return str(value)


def truthy(value):
    return value not in (None, False, 0, "", [], {})


def split_outside_quotes(text, separator):
    parts, current, quoted = [], "", False
    for char in text:
        if char == '"':
            quoted = not quoted
        if char == separator and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


class Chart:
    """Parses the chart's templates and renders them with given values."""

    def __init__(self, directory):
        self.directory = Path(directory)
        self.meta = yaml.safe_load((self.directory / "Chart.yaml").read_text())
        self.defaults = yaml.safe_load((self.directory / "values.yaml").read_text())
        self.defines = {}
        self.manifests = {}
        for path in sorted((self.directory / "templates").iterdir()):
            nodes = self.parse(path.read_text(), path.name)
            if path.name.startswith("_"):
                continue
            self.manifests[path.name] = nodes

    # Parsing: a list of nodes, each text, an action, an if or a range.
    def parse(self, source, name):
        tokens = []
        position = 0
        for match in ACTION.finditer(source):
            tokens.append(("text", source[position:match.start()]))
            trims_before, trims_after = bool(match.group(1)), bool(match.group(3))
            tokens.append(("action", match.group(2).strip(), trims_before, trims_after))
            position = match.end()
        tokens.append(("text", source[position:]))
        # Trim markers eat the white space next to them, newlines included.
        for i, token in enumerate(tokens):
            if token[0] != "action":
                continue
            if token[2] and i > 0:
                tokens[i - 1] = ("text", tokens[i - 1][1].rstrip(" \t\r\n"))
            if token[3] and i + 1 < len(tokens):
                tokens[i + 1] = ("text", tokens[i + 1][1].lstrip(" \t\r\n"))
        nodes, rest = self.parse_nodes(tokens, 0, name, top=True)
        assert rest == len(tokens)
        return nodes

    def parse_nodes(self, tokens, i, name, top=False):
        nodes = []
        while i < len(tokens):
            token = tokens[i]
            if token[0] == "text":
                nodes.append(("text", token[1]))
                i += 1
                continue
            body = token[1]
            if body.startswith("/*"):
                i += 1
                continue
            keyword = body.split()[0]
            if keyword in ("end", "else"):
                if top:
                    raise TemplateError(f"{name}: unexpected {{{{ {body} }}}}")
                return nodes, i
            if keyword == "define":
                define_name = json.loads(body[len("define"):].strip())
                inner, i = self.parse_nodes(tokens, i + 1, name)
                self.expect(tokens, i, "end", name)
                self.defines[define_name] = inner
                i += 1
            elif keyword == "if":
                then, i = self.parse_nodes(tokens, i + 1, name)
                otherwise = []
                if tokens[i][1] == "else":
                    otherwise, i = self.parse_nodes(tokens, i + 1, name)
                self.expect(tokens, i, "end", name)
                nodes.append(("if", body[len("if"):].strip(), then, otherwise))
                i += 1
            elif keyword == "range":
                inner, i = self.parse_nodes(tokens, i + 1, name)
                self.expect(tokens, i, "end", name)
                nodes.append(("range", body[len("range"):].strip(), inner))
                i += 1
            else:
                nodes.append(("action", body))
                i += 1
        if not top:
            raise TemplateError(f"{name}: missing {{{{ end }}}}")
        return nodes, i

    @staticmethod
    def expect(tokens, i, word, name):
        if i >= len(tokens) or tokens[i][0] != "action" or tokens[i][1] != word:
            raise TemplateError(f"{name}: expected {{{{ {word} }}}}")

    # Evaluation.
    def value(self, word, dot):
        if word.startswith('"'):
            return json.loads(word)
        if re.fullmatch(r"-?\d+(\.\d+)?", word):
            return float(word) if "." in word else int(word)
        if word == ".":
            return dot
        if word.startswith("."):
            current = dot
            for field in word[1:].split("."):
                if not isinstance(current, dict):
                    raise TemplateError(f"{word}: {field} of a {type(current).__name__}")
                current = current.get(field)
            return current
        raise TemplateError(f"unsupported operand {word!r}")

    def call(self, words, dot, piped):
        head, args = words[0], [self.value(w, dot) for w in words[1:]]
        if piped is not NOTHING:
            args.append(piped)
        if head == "include":
            return self.render_nodes(self.defines[args[0]], args[1])
        if head == "default":
            return args[1] if truthy(args[1]) else args[0]
        if head == "quote":
            return json.dumps(go_text(args[0]))
        if head == "not":
            return not truthy(args[0])
        if head == "toYaml":
            return yaml.safe_dump(args[0], default_flow_style=False, sort_keys=True).rstrip("\n")
        if head in ("indent", "nindent"):
            pad = " " * int(args[0])
            text = "\n".join(pad + line for line in go_text(args[1]).split("\n"))
            return "\n" + text if head == "nindent" else text
        if len(words) == 1 and piped is NOTHING:
            return self.value(head, dot)
        raise TemplateError(f"unsupported function {head!r}")

    def pipeline(self, text, dot):
        result = NOTHING
        for command in split_outside_quotes(text, "|"):
            words = split_outside_quotes(command.strip(), " ")
            words = [w for w in words if w]
            result = self.call(words, dot, result)
        return result

    def render_nodes(self, nodes, dot):
        out = []
        for node in nodes:
            if node[0] == "text":
                out.append(node[1])
            elif node[0] == "action":
                out.append(go_text(self.pipeline(node[1], dot)))
            elif node[0] == "if":
                chosen = node[2] if truthy(self.pipeline(node[1], dot)) else node[3]
                out.append(self.render_nodes(chosen, dot))
            elif node[0] == "range":
                for item in self.pipeline(node[1], dot) or []:
                    out.append(self.render_nodes(node[2], item))
        return "".join(out)

    def render(self, overrides=None, release="wasserwarp"):
        """The rendered objects, as `helm template RELEASE` would give them."""
        values = merge(self.defaults, overrides or {})
        root = {
            "Values": values,
            "Chart": {"Name": self.meta["name"], "AppVersion": self.meta["appVersion"],
                      "Version": self.meta["version"]},
            "Release": {"Name": release, "Namespace": "default"},
        }
        objects = []
        for name, nodes in self.manifests.items():
            text = self.render_nodes(nodes, root)
            for document in yaml.safe_load_all(text):
                if document is not None:
                    objects.append(document)
        return objects


def merge(base, overrides):
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key] = merge(base[key], value)
        else:
            merged[key] = value
    return merged
