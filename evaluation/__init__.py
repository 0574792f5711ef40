"""piramida.evaluation: matches between bots, their figures, and the files they write."""
