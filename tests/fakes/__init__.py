"""Real local stand-ins for outside services (an OpenAI-compatible model endpoint)."""
