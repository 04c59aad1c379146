module github.com/graphql-go/graphql

go 1.21
