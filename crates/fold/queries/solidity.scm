; Solidity definitions: contracts (abstract too), interfaces, libraries (as modules), structs,
; enums, functions (methods inside a contract), modifiers, constructors and receive/fallback,
; events and custom errors (the types of a contract's logs and reverts, as `type`).

(contract_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(library_declaration name: (identifier) @name) @definition.module
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(constructor_definition "constructor" @name) @definition.constructor
(fallback_receive_definition ["receive" "fallback"] @name) @definition.function
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type
