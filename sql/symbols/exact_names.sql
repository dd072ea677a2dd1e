-- The nodes whose folded name or alias equals each wanted key (afr.text.fold_name): one
-- index point lookup per key ($k0, $k1, …), the key's position returned with each hit.
-- Types and allowed nodes are applied by the caller (afr.pipeline.symbols).
{% for i in range(keys) %}
{% if not loop.first %}
UNION ALL
{% endif %}
SELECT {{ i }} AS pos, node_id, type FROM node_names WHERE name_key = $k{{ i }}
{% endfor %}
