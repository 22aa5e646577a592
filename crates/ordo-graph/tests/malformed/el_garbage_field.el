1 2
3 four
