module example.com/sum

go 1.22
