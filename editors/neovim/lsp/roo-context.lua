-- Neovim 0.11+: the `vim.lsp.config` entry found on 'runtimepath', so `vim.lsp.enable("roo-context")`
-- works without calling setup (which registers the same table with the user's options).
return require("roo_context").lsp_config()
