"""GDScript run by the scene-export engine tests: what the engine makes of our files.

For every case listed in ``cases.txt`` the script
* loads ``<case>.tscn`` and instances it, then walks the nodes in file order (pre-order) and
  records name, class, path from the root, the global transform (the engine's own
  ``Transform`` product down the chain: ``global_transform`` needs the node inside a running
  tree, which ``_init()`` does not have), ``visible``, all metadata, the ``mesh`` and
  ``material_override`` resources (class + stored properties), whether ``set_name`` leaves the
  name unchanged, and whether the path leads back to this very node;
* reads ``<case>.var`` with ``bytes2var``/``bytes_to_var``, re-encodes it (must give the same
  bytes), and walks the slot dictionaries composing their ``transform`` values.

Everything goes back as one binary Variant per case, decoded in Python by brson's codec.  The
script null-checks each step: a script error inside ``_init()`` would hang the engine.
"""

from __future__ import annotations

_BODY = """
for case in _text("cases.txt").split("\\n", false):
	var records = []
	var scene = load("res://" + case + ".tscn")
	if scene != null:
		var root = scene.@INSTANCE@()
		if root != null:
			var stack = [[root, @TRANSFORM@()]]
			while stack.size() > 0:
				var item = stack.pop_back()
				var node = item[0]
				var global = item[1] * node.transform
				var meta = {}
				for key in node.get_meta_list():
					meta[str(key)] = node.get_meta(key)
				var resources = {}
				for prop in ["mesh", "material_override"]:
					var res = node.get(prop) if prop in node else null
					if res != null:
						var fields = {"@class": res.get_class()}
						for info in res.get_property_list():
							var value = res.get(info.name)
							if info.usage & PROPERTY_USAGE_STORAGE and typeof(value) != TYPE_OBJECT:
								fields[info.name] = value
						resources[prop] = fields
				var probe = Node.new()
				probe.name = node.name
				var valid = str(probe.name) == str(node.name)
				probe.free()
				var path = str(root.get_path_to(node))
				var found = root.get_node(NodePath(path)) == node
				records.append([str(node.name), node.get_class(), path, global, node.visible,
					meta, resources, valid, found])
				var kids = node.get_children()
				for i in range(kids.size() - 1, -1, -1):
					stack.append([kids[i], global])
			root.free()
	_save("scene_" + case + ".bin", @ENCODE@(records))
	var data = _load(case + ".var")
	var walked = []
	var same = false
	if data.size() > 0:
		var tree = @DECODE@(data)
		if typeof(tree) == TYPE_DICTIONARY and tree.has("root"):
			same = @ENCODE@(tree) == data
			var stack = [[tree["root"], @TRANSFORM@()]]
			while stack.size() > 0:
				var item = stack.pop_back()
				var slot = item[0]
				var global = item[1] * slot["transform"]
				walked.append([slot["name"], slot["id"], global, slot["components"].size()])
				var kids = slot["children"]
				for i in range(kids.size() - 1, -1, -1):
					stack.append([kids[i], global])
	_save("variant_" + case + ".bin", @ENCODE@([same, walked]))
"""

_WORDS = {
    3: {
        "@INSTANCE@": "instance",
        "@TRANSFORM@": "Transform",
        "@ENCODE@": "var2bytes",
        "@DECODE@": "bytes2var",
    },
    4: {
        "@INSTANCE@": "instantiate",
        "@TRANSFORM@": "Transform3D",
        "@ENCODE@": "var_to_bytes",
        "@DECODE@": "bytes_to_var",
    },
}


def probe_body(major: int) -> str:
    """The ``_init()`` statements for ``tests.godot.engine.run_script``."""
    body = _BODY
    for word, replacement in _WORDS[major].items():
        body = body.replace(word, replacement)
    return body
