"""Writes python_values.json: CPython's str(), repr() and truthiness of the
values cogloop formats, and float() of texts. Run once with python3 from this
directory (python3 python_values.py); the Go test reads the committed JSON.

Value encoding (so Go can rebuild the exact Python value): JSON null, bools,
strings and lists as they are; an int as {"int": "123"}; a float as
{"float": "<repr>"} (repr gives back the exact float, also inf and nan); a
dict as {"dict": [[key, value], ...]} in its own order (Go: pyvalue.Pairs),
or {"sorted": [[key, value], ...]} for a dict whose keys are already in
sorted order (Go: map[string]any, which prints sorted)."""
import json
import sys


def enc(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, list):
        return [enc(x) for x in v]
    if isinstance(v, dict):
        kind = "sorted" if list(v) == sorted(v) and all(isinstance(k, str) for k in v) else "dict"
        return {kind: [[enc(k), enc(x)] for k, x in v.items()]}
    raise TypeError(type(v))


values = [
    None, True, False, 0, 1, -7, 2**53, 0.0, -0.0, 1.0, 0.5, 0.1, 0.72, 1.5, 100.0,
    1500000.0, 123456789.0, 1e15, 1e16, 1.5e16, 1e-4, 1e-5, 0.00012, 1/3, 2/3, -2.5,
    1e22, 1.7976931348623157e308, 5e-324, float("inf"), float("-inf"), float("nan"),
    "", "a", "it's", 'say "hi"', "both ' and \"", "line1\nline2", "tab\there", "cr\r",
    "back\\slash", "\x00\x1f\x7f", "caf\u00e9", "\u00a0nbsp", "\u00ad", "snow\u2603",
    "\u2028", "emoji \U0001F600", "\U000E0001", "ключ",
    [], ["a", "b"], [1, 2.0, None, True], [["nested"], {"k": "v"}],
    {}, {"a": 1}, {"b": 1, "a": 2}, {"response": "x\ny", "confidence": 0.5, "internal_reasoning": ""},
    {"score": 1500000.0, "tags": ["a", "b"], "ok": False, "none": None},
    {"outer": {"inner": [1, {"z": 0.25}]}},
]

texts = [
    "1", "1.5", " 2.5 ", "-3", "+4.0", "1e3", "1E-2", "1_000", "1_000.5", "1__0", "_1", "1_",
    ".5", "5.", "inf", "-Infinity", "nan", "NaN", "+inf", "", " ", "abc", "1e", "0x10",
    "1.2.3", "--1", "1 2", "1e400", "-1e400", "1e-400", "0.72", "８",
]

rows = []
for v in values:
    rows.append({"value": enc(v), "str": str(v), "repr": repr(v), "truthy": bool(v)})

floats = []
for t in texts:
    try:
        f = float(t)
        floats.append({"text": t, "ok": True, "repr": repr(f)})
    except ValueError:
        floats.append({"text": t, "ok": False})

json.dump({"python": sys.version.split()[0], "values": rows, "float": floats}, open("python_values.json", "w"),
          indent=1, ensure_ascii=True)
