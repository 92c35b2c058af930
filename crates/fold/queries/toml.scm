; TOML: tables (`[section]`) and array-of-tables entries (`[[bin]]`) as sections, and keys whose
; value is an array (not inside inline tables). Scalar keys are left out.

(table [(bare_key) (dotted_key) (quoted_key)] @name) @definition.module
(table_array_element [(bare_key) (dotted_key) (quoted_key)] @name) @definition.module
(table (pair . [(bare_key) (dotted_key) (quoted_key)] @name (array)) @definition.property)
(table_array_element (pair . [(bare_key) (dotted_key) (quoted_key)] @name (array)) @definition.property)
(document (pair . [(bare_key) (dotted_key) (quoted_key)] @name (array)) @definition.property)
