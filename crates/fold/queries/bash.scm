; Bash definitions: functions (`f() { ... }` and `function f { ... }`). Variables and commands are
; left out; `if`/`case`/loops fold but are not definitions.

(function_definition name: (word) @name) @definition.function
