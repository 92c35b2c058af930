; CSS definitions: rule sets (named by their selectors), at-rules that hold rules (`@media`,
; `@supports`, `@keyframes` and others such as `@layer`). Declarations are left out.

(rule_set (selectors) @name) @definition.rule
(media_statement . (_) @name) @definition.module
(supports_statement . (_) @name) @definition.module
(keyframes_statement (keyframes_name) @name) @definition.module
(at_rule (at_keyword) @name (block)) @definition.module
