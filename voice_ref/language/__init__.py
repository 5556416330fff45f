"""Spanish game speech as text: number words, face names, the phrase inventory, the parser."""
