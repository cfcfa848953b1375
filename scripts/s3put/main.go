// Command s3put uploads files to an S3 server, creating the bucket if it
// does not exist: the setup of scripts/sidecarbench.sh, which measures
// sidecar indexes on a local versitygw, and of scripts/cpbench.sh.
//
//	s3put [-public] ENDPOINT BUCKET [FILE...]
//
// Each FILE is stored under its base name. With -public, a bucket it
// creates lets anyone get and list its objects (a bucket policy), so that
// a client without keys can fetch them by URL. The keys come from
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; addressing is path style.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "s3put:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	public := len(args) > 0 && args[0] == "-public"
	if public {
		args = args[1:]
	}
	if len(args) < 2 {
		return errors.New("usage: s3put [-public] ENDPOINT BUCKET [FILE...]")
	}
	c := s3.New(s3.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(args[0]),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), ""),
	})
	bucket := args[1]
	if _, err := c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
			return err
		}
		if public {
			policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*",`+
				`"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}`, bucket, bucket)
			if _, err := c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(bucket), Policy: aws.String(policy)}); err != nil {
				return err
			}
		}
	}
	for _, name := range args[2:] {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		info, err := f.Stat()
		if err == nil {
			_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(filepath.Base(name)),
				Body: f, ContentLength: aws.Int64(info.Size())})
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
