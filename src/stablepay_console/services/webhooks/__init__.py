"""The provider's webhook deliveries: verified before they are read, bounded, and taken as hints (UI-free)."""
