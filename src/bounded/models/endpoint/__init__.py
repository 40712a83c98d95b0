"""The OpenAI-compatible endpoint client by concern: `retry` (the policy and tenacity's
loop), `transport` (one JSON POST transport with its deadline at the socket), `formats`
(response formats and a server's refusals of them), `tokens` (counting without usage) and
`client` (the `openai:` model). `bounded.models.openai_compat` re-exports their names."""
