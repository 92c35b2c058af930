; Rust definitions.
; Convention: @definition.<kind> on the whole definition node, @name on its name,
; @trait on the implemented trait of an impl (the name becomes "Trait for Type").

; functions inside impl and trait bodies are methods (this pattern must stay before the
; plain function pattern: the first pattern wins for one node)
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item
  body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait

(impl_item trait: (_) @trait type: (_) @name) @definition.impl
(impl_item type: (_) @name !trait) @definition.impl

(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
