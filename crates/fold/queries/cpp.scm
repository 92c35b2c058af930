; C++ definitions: namespaces, classes/structs/unions/enums with bodies, concepts, functions and
; methods with bodies (functions directly inside a class are methods; out-of-line definitions
; `Type::method` are methods too). Templates start at the entity: the `template <...>` line
; before it is not its first line. Prototypes are left out. The patterns stay flat: nested
; alternations make this grammar's query compile for seconds.

(function_definition
  declarator: (function_declarator declarator: (qualified_identifier) @name)) @definition.method
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (_) @name))) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator declarator: (_) @name))) @definition.function

(namespace_definition name: (_) @name) @definition.module
(class_specifier name: (_) @name body: (_)) @definition.class
(struct_specifier name: (_) @name body: (_)) @definition.struct
(union_specifier name: (_) @name body: (_)) @definition.struct
(enum_specifier name: (_) @name body: (_)) @definition.enum
(concept_definition name: (identifier) @name) @definition.interface

(preproc_function_def name: (identifier) @name) @definition.macro
