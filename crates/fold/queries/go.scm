; Go definitions.
; Convention: @definition.<kind> on the whole definition node, @name on its name.
; The original captured whole declarations as @name.definition.*, which made every Go file one
; line spanning the file; here each declaration is its own definition.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(method_elem name: (field_identifier) @name) @definition.method

; grouped constants and variables (const ( ... ) blocks often hold enums)
(const_declaration (const_spec name: (identifier) @name)) @definition.constant
(var_declaration (var_spec name: (identifier) @name)) @definition.variable
; `var ( ... )` wraps its specs in a var_spec_list
(var_declaration (var_spec_list (var_spec name: (identifier) @name))) @definition.variable
