"""Pure functions that turn values into safe, readable text for the screen."""
